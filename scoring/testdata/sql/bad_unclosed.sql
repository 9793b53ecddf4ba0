-- unclosed
CREATE TABLE t (
  id int,
  name text
