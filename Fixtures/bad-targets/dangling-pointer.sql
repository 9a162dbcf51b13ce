-- A mirror whose Book "Dune" points at a Genre that is gone: with the library's keys
-- (--manifest Fixtures/library) the pointer cannot be named by key.
CREATE TABLE _SCHEMA (className TEXT PRIMARY KEY, schema TEXT);
INSERT INTO _SCHEMA VALUES ('Genre', '{"className":"Genre","fields":{"name":{"type":"String","required":true}}}');
INSERT INTO _SCHEMA VALUES ('Book', '{"className":"Book","fields":{"title":{"type":"String","required":true},"genre":{"type":"Pointer","targetClass":"Genre"}}}');
CREATE TABLE "Genre" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT, "name" TEXT);
CREATE TABLE "Book" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT, "title" TEXT, "genre" TEXT);
INSERT INTO "Genre" VALUES ('g1', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Classics');
INSERT INTO "Book" VALUES ('b1', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Emma', 'g1');
INSERT INTO "Book" VALUES ('b2', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Dune', 'gone');
