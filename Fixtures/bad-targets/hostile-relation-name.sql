-- A mirror whose Book class has a Relation field "../../x": its join file name would leave the export folder.
CREATE TABLE _SCHEMA (className TEXT PRIMARY KEY, schema TEXT);
INSERT INTO _SCHEMA VALUES ('Book', '{"className":"Book","fields":{"title":{"type":"String"},"../../x":{"type":"Relation","targetClass":"Book"}}}');
CREATE TABLE "Book" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT, "title" TEXT);
CREATE TABLE "_Join:../../x:Book" (owningId TEXT, relatedId TEXT, PRIMARY KEY (owningId, relatedId));
INSERT INTO "Book" VALUES ('b1', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Dune');
INSERT INTO "_Join:../../x:Book" VALUES ('b1', 'b1');
