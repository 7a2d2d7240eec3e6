// A database and user of its own on the local MySQL/MariaDB server, when there is one the `mysql`
// client can administer (root over the local socket); null otherwise, and the MySQL components
// are then reported as needing a server.
import { execFileSync } from 'node:child_process';

const DATABASE = 'tributary_compat';
const USER = 'tributary_compat';
const PASSWORD = 'compat-only-password';

function admin(sql) {
  execFileSync('mysql', ['-u', 'root', '-e', sql], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 15_000 });
}

export function openLocalMysql() {
  try {
    admin(`DROP DATABASE IF EXISTS ${DATABASE}; DROP USER IF EXISTS '${USER}'@'127.0.0.1'`);
    admin(
      [
        `CREATE DATABASE ${DATABASE}`,
        `CREATE USER '${USER}'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`,
        `GRANT ALL ON ${DATABASE}.* TO '${USER}'@'127.0.0.1'`,
        `CREATE TABLE ${DATABASE}.products (id int AUTO_INCREMENT PRIMARY KEY, name varchar(50) UNIQUE, price int)`,
        `INSERT INTO ${DATABASE}.products (name, price) VALUES ('lamp', 20), ('desk', 150), ('chair', 75)`,
        `CREATE PROCEDURE ${DATABASE}.cheap_products(IN below int) SELECT name FROM ${DATABASE}.products WHERE price < below`,
      ].join('; '),
    );
  } catch {
    return null;
  }
  return {
    auth: { host: '127.0.0.1', port: 3306, username: USER, password: PASSWORD, database: DATABASE },
    close() {
      admin(`DROP DATABASE IF EXISTS ${DATABASE}; DROP USER IF EXISTS '${USER}'@'127.0.0.1'`);
    },
  };
}
