-- PostgreSQL CREATE TABLE syntax (postgresql.org/docs/16/sql-createtable.html).
CREATE TABLE customers (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    sales_region varchar(16) DEFAULT 'EMEA'
);
CREATE INDEX customers_region ON customers (sales_region);
CREATE TABLE IF NOT EXISTS public.orders (
    id bigserial,
    customer_id bigint REFERENCES customers (id),
    amount_cents integer CHECK (amount_cents >= 0),
    PRIMARY KEY (id)
);
