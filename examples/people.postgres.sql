CREATE TABLE IF NOT EXISTS example_people (
  id SERIAL PRIMARY KEY,
  name VARCHAR(100) NOT NULL UNIQUE,
  city VARCHAR(100)
);
INSERT INTO example_people (name, city) VALUES ('Ada', 'London'), ('Grace', 'New York'), ('Edsger', 'Rotterdam')
  ON CONFLICT (name) DO NOTHING;
