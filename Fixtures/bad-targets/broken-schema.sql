-- A mirror whose _SCHEMA row for Book is not /schemas JSON (loaded into a fresh file by the test).
CREATE TABLE _SCHEMA (className TEXT PRIMARY KEY, schema TEXT);
INSERT INTO _SCHEMA VALUES ('Book', '{"className": "Book", "fields": {not json');
CREATE TABLE "Book" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT);
