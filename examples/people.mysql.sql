CREATE TABLE IF NOT EXISTS example_people (
  id INT AUTO_INCREMENT PRIMARY KEY,
  name VARCHAR(100) NOT NULL UNIQUE,
  city VARCHAR(100)
);
INSERT IGNORE INTO example_people (name, city) VALUES ('Ada', 'London'), ('Grace', 'New York'), ('Edsger', 'Rotterdam');
