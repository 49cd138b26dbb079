/** The notes, as rows of the database: what the MCP server's tools and resources read and change. */
import type Database from 'better-sqlite3';

export interface Note {
  id: number;
  title: string;
  body: string;
  createdAt: string;
  updatedAt: string;
}

export interface Found {
  id: number;
  title: string;
  /** The matching words in their context, marked with [brackets]. */
  snippet: string;
}

interface NoteRow {
  id: number;
  title: string;
  body: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, title, body, created_at, updated_at';
const toNote = (row: NoteRow): Note => ({
  id: row.id,
  title: row.title,
  body: row.body,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class NoteStore {
  private readonly insert;
  private readonly byId;
  private readonly all;
  private readonly matching;
  private readonly change;
  private readonly removal;

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string, string], NoteRow>(`INSERT INTO notes (title, body) VALUES (?, ?) RETURNING ${COLUMNS}`);
    this.byId = db.prepare<[number], NoteRow>(`SELECT ${COLUMNS} FROM notes WHERE id = ?`);
    this.all = db.prepare<[], NoteRow>(`SELECT ${COLUMNS} FROM notes ORDER BY id`);
    this.matching = db.prepare<[string, number], Found>(
      `SELECT rowid AS id, title, snippet(notes_fts, -1, '[', ']', '…', 12) AS snippet
         FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank LIMIT ?`,
    );
    this.change = db.prepare<[string, string, number], NoteRow>(
      `UPDATE notes SET title = ?, body = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? RETURNING ${COLUMNS}`,
    );
    this.removal = db.prepare<[number], NoteRow>(`DELETE FROM notes WHERE id = ? RETURNING ${COLUMNS}`);
  }

  add(title: string, body: string): Note {
    return toNote(this.insert.get(title, body)!);
  }

  get(id: number): Note | undefined {
    const row = this.byId.get(id);
    return row && toNote(row);
  }

  list(): Note[] {
    return this.all.all().map(toNote);
  }

  /** Notes holding every word of `words` (in any order, as prefixes too), best match first. */
  search(words: string, limit: number): Found[] {
    const terms = words.split(/\s+/).filter((w) => w !== '');
    if (terms.length === 0) return [];
    // Each word quoted, so that what the user typed is never read as FTS5 query syntax.
    const query = terms.map((w) => `"${w.replaceAll('"', '""')}"*`).join(' ');
    return this.matching.all(query, limit);
  }

  update(id: number, changes: { title?: string; body?: string }): Note | undefined {
    const note = this.get(id);
    if (note === undefined) return undefined;
    return toNote(this.change.get(changes.title ?? note.title, changes.body ?? note.body, id)!);
  }

  remove(id: number): Note | undefined {
    const row = this.removal.get(id);
    return row && toNote(row);
  }
}
