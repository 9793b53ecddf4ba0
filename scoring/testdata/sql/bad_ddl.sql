-- not a schema
SELEC id FROM t;
