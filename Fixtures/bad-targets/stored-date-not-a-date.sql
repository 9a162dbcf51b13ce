-- A mirror changed behind ParsePorter's back: Book b2's Date field holds "yesterday".
CREATE TABLE _SCHEMA (className TEXT PRIMARY KEY, schema TEXT);
INSERT INTO _SCHEMA VALUES ('Book', '{"className":"Book","fields":{"title":{"type":"String"},"published":{"type":"Date"}}}');
CREATE TABLE "Book" ("objectId" TEXT PRIMARY KEY, "createdAt" TEXT, "updatedAt" TEXT, "ACL" TEXT, "title" TEXT, "published" TEXT);
INSERT INTO "Book" VALUES ('b1', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Dune', '1965-08-01T00:00:00.000Z');
INSERT INTO "Book" VALUES ('b2', '2024-01-31T09:30:00.000Z', '2024-01-31T09:30:00.000Z', NULL, 'Emma', 'yesterday');
