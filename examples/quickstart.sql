-- Demo table of examples/quickstart.yml. Run on every start of `npm start`: it creates the
-- table if missing and fills it only while it is empty.
CREATE TABLE IF NOT EXISTS books (
  id         TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  author     TEXT NOT NULL,
  year       INTEGER,
  genre      TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

INSERT INTO books (id, title, author, year, genre)
SELECT * FROM (VALUES
  ('sicp',  'Structure and Interpretation of Computer Programs', 'Harold Abelson and Gerald Jay Sussman', 1985, 'programming'),
  ('taocp', 'The Art of Computer Programming',                   'Donald E. Knuth',                       1968, 'algorithms'),
  ('clrs',  'Introduction to Algorithms',                        'Cormen, Leiserson, Rivest and Stein',   1990, 'algorithms'),
  ('kr',    'The C Programming Language',                        'Brian Kernighan and Dennis Ritchie',    1978, 'programming'),
  ('ddia',  'Designing Data-Intensive Applications',             'Martin Kleppmann',                      2017, 'databases')
) AS seed (id, title, author, year, genre)
WHERE NOT EXISTS (SELECT 1 FROM books);
