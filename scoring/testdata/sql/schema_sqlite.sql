-- SQLite allows columns with no declared type (sqlite.org/lang_createtable.html,
-- "column-def": the type-name is optional) and MySQL-style backtick quoting.
CREATE TABLE drives (
    year INT(11),
    driver_id INT,
    drive_id ,
    is_first_drive
);
CREATE TABLE `frpm` (
    `CDSCode` TEXT NOT NULL,
    `School Name` TEXT,
    `Enrollment (K-12)` REAL,
    FOREIGN KEY (`CDSCode`) REFERENCES schools (`CDSCode`)
);
