-- TFB's PostgreSQL data set: World (10,000 rows, random numbers 1..10000) and Fortune (12 rows),
-- each twice as TFB has them: unquoted (world, fortune) and quoted ("World", "Fortune").
-- Run by pg.sh as the superuser, in the database hello_world.
BEGIN;

CREATE EXTENSION IF NOT EXISTS pg_stat_statements;

CREATE TABLE world (
  id integer NOT NULL,
  randomnumber integer NOT NULL DEFAULT 0,
  PRIMARY KEY (id)
);
INSERT INTO world (id, randomnumber)
SELECT x.id, least(floor(random() * 10000 + 1), 10000) FROM generate_series(1, 10000) AS x(id);

CREATE TABLE fortune (
  id integer NOT NULL,
  message varchar(2048) NOT NULL,
  PRIMARY KEY (id)
);
INSERT INTO fortune (id, message) VALUES
  (1, 'fortune: No such file or directory'),
  (2, 'A computer scientist is someone who fixes things that aren''t broken.'),
  (3, 'After enough decimal places, nobody gives a damn.'),
  (4, 'A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1'),
  (5, 'A computer program does what you tell it to do, not what you want it to do.'),
  (6, 'Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen'),
  (7, 'Any program that runs right is obsolete.'),
  (8, 'A list is only as strong as its weakest link. — Donald Knuth'),
  (9, 'Feature: A bug with seniority.'),
  (10, 'Computers make very fast, very accurate mistakes.'),
  (11, '<script>alert("This should not be displayed in a browser alert box.");</script>'),
  (12, 'フレームワークのベンチマーク');

CREATE TABLE "World" (LIKE world INCLUDING ALL);
INSERT INTO "World" SELECT * FROM world;
CREATE TABLE "Fortune" (LIKE fortune INCLUDING ALL);
INSERT INTO "Fortune" SELECT * FROM fortune;

GRANT ALL PRIVILEGES ON world, fortune, "World", "Fortune" TO benchmarkdbuser;

COMMIT;
