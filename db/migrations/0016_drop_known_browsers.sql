-- Which browsers a member knows is now read from their security record (migration 0015 carried the rows over).
DROP TABLE "known_browsers" CASCADE;