/**
 * The notes database: opened from a path and brought to the newest schema before anything
 * reads it. Each migration runs once, in a transaction, and `PRAGMA user_version` records how
 * many have run, so an older file is upgraded in place and a new one is created from scratch.
 */
import Database from 'better-sqlite3';

/** In order; a released migration is never edited, only followed by a new one. */
const MIGRATIONS: readonly string[] = [
  // 1: the notes themselves.
  `CREATE TABLE notes (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     title TEXT NOT NULL,
     body TEXT NOT NULL,
     created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
     updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
   );`,
  // 2: full-text search over title and body, kept in step with the table by triggers.
  `CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, content='notes', content_rowid='id');
   CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
     INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
   END;
   CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
     INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
   END;
   CREATE TRIGGER notes_au AFTER UPDATE ON notes BEGIN
     INSERT INTO notes_fts(notes_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
     INSERT INTO notes_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
   END;
   INSERT INTO notes_fts(notes_fts) VALUES ('rebuild');`,
];

/** The schema version this program writes: the number of migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  // WAL lets a second process (another server, the sqlite3 shell) read while this one writes.
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: Database.Database): void {
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new Error(`the database has schema version ${current}, newer than this program's ${SCHEMA_VERSION}: update notes-sqlite`);
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[version]!);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
