-- A mirror whose _SCHEMA names a class "../escaped": an export must not build a file name from it.
CREATE TABLE _SCHEMA (className TEXT PRIMARY KEY, schema TEXT);
INSERT INTO _SCHEMA VALUES ('../escaped', '{"className":"../escaped","fields":{"objectId":{"type":"String"},"name":{"type":"String"}}}');
CREATE TABLE "../escaped" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT, "name" TEXT);
INSERT INTO "../escaped" VALUES ('a1', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'outside');
