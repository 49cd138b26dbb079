/**
 * The MCP server: tools that add, search, update and delete notes, every note as a resource
 * (`note://{id}`), and a prompt that asks the model to summarise notes on a topic. Whenever a
 * note changes, clients hear of it: the resource list changed (`notifications/resources/list_changed`
 * on a 2025 session, an event on a 2026-07-28 `subscriptions/listen` stream) and, for a
 * note that was changed or deleted, its subscribers are told (`notifications/resources/updated`).
 */
import { ResourceNotFoundError } from 'janus-mcp/errors';
import { createServer, type Server, toolError } from 'janus-mcp/server';
import { z } from 'zod';
import type { Note, NoteStore } from './notes.js';

export const noteUri = (id: number): string => `note://${id}`;

const markdown = (note: Note): string => `# ${note.title}\n\n${note.body}\n`;

/** A URI the template matches but no note answers: each era sends its own code (-32002, or -32602 in 2026-07-28). */
const noSuchNote = (uri: string): ResourceNotFoundError =>
  new ResourceNotFoundError(uri, `No note at ${uri}; resources/list names every note`);

export function createNotesServer(notes: NoteStore): Server {
  const server = createServer({
    name: 'notes-sqlite',
    version: '1.0.0',
    instructions: 'Search the notes before adding one on the same subject. Each note is also a resource, note://{id}.',
  });

  const changed = (id: number) => {
    server.resourceUpdated(noteUri(id)); // subscribers of this note
    server.listChanged('resources'); // everyone who lists notes
  };

  server.tool(
    'add_note',
    {
      title: 'Add a note',
      description: 'Saves a new note and returns its id and resource URI',
      input: z.object({
        title: z.string().trim().min(1).max(200).describe('A short title'),
        body: z.string().max(100_000).describe('The note itself, Markdown'),
      }),
      output: z.object({ id: z.number().int(), uri: z.string() }),
    },
    ({ title, body }) => {
      const note = notes.add(title, body);
      server.listChanged('resources');
      return { id: note.id, uri: noteUri(note.id) };
    },
  );

  server.tool(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Full-text search over titles and bodies; every word must match (as a word or the start of one)',
      input: z.object({
        query: z.string().min(1).describe('Words to look for'),
        limit: z.number().int().min(1).max(50).default(10),
      }),
      output: z.object({
        notes: z.array(z.object({ id: z.number().int(), uri: z.string(), title: z.string(), snippet: z.string() })),
      }),
      annotations: { readOnlyHint: true },
    },
    ({ query, limit }) => ({
      notes: notes.search(query, limit).map((found) => ({ ...found, uri: noteUri(found.id) })),
    }),
  );

  server.tool(
    'update_note',
    {
      title: 'Update a note',
      description: 'Changes the title or the body of a note',
      input: z.object({
        id: z.number().int(),
        title: z.string().trim().min(1).max(200).optional(),
        body: z.string().max(100_000).optional(),
      }),
      annotations: { idempotentHint: true },
    },
    ({ id, title, body }) => {
      const note = notes.update(id, { title, body });
      if (note === undefined) return toolError(`There is no note ${id}. search_notes finds notes by their words.`);
      changed(id);
      return `Updated note ${id} (${note.title}).`;
    },
  );

  server.tool(
    'delete_note',
    {
      title: 'Delete a note',
      description: 'Deletes a note for good',
      input: z.object({ id: z.number().int() }),
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ id }) => {
      const note = notes.remove(id);
      if (note === undefined) return toolError(`There is no note ${id}. search_notes finds notes by their words.`);
      changed(id);
      return `Deleted note ${id} (${note.title}).`;
    },
  );

  server.resourceTemplate(
    'note://{id}',
    {
      name: 'note',
      title: 'Note',
      description: 'One note, as Markdown',
      mimeType: 'text/markdown',
      list: () => notes.list().map((note) => ({ uri: noteUri(note.id), name: note.title, mimeType: 'text/markdown' })),
      complete: {
        id: ({ value }) =>
          notes
            .list()
            .map((note) => String(note.id))
            .filter((id) => id.startsWith(value)),
      },
    },
    (uri, { id }) => {
      const note = /^\d+$/.test(id ?? '') ? notes.get(Number(id)) : undefined;
      if (note === undefined) throw noSuchNote(uri);
      return { uri, mimeType: 'text/markdown', text: markdown(note) };
    },
  );

  server.prompt(
    'summarize_notes',
    {
      title: 'Summarise notes',
      description: 'Asks for a summary of the notes about a topic (all notes when none is given)',
      arguments: z.object({ topic: z.string().optional().describe('Words the notes must contain') }),
    },
    ({ topic }) => {
      const chosen = topic ? notes.search(topic, 20).map((found) => notes.get(found.id)!) : notes.list().slice(0, 20);
      if (chosen.length === 0) return `There are no notes${topic ? ` about "${topic}"` : ''} yet. Say so, and offer to add one.`;
      return [
        {
          role: 'user' as const,
          content: {
            type: 'text' as const,
            text: `Summarise these ${chosen.length} notes${topic ? ` about "${topic}"` : ''} in a few bullet points.`,
          },
        },
        ...chosen.map((note) => ({
          role: 'user' as const,
          content: { type: 'resource' as const, resource: { uri: noteUri(note.id), mimeType: 'text/markdown', text: markdown(note) } },
        })),
      ];
    },
  );

  return server;
}
