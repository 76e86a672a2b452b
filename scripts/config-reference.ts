/**
 * `npm run docs:config`: writes config/nlgate.schema.json (the JSON Schema editors read) and
 * docs/configuration.md (the reference) from the zod config schemas. Field descriptions are the doc
 * comments written beside each field in src/config/schema.ts and adapters/<kind>/config.ts, so they
 * live in one place. test/docs/config-reference.test.ts regenerates both and compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { builtinAdapters } from '../adapters/index.ts';
import { configJsonSchema } from '../src/config/json-schema.ts';
import { renderConfigDocs } from './config-docs-render.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMA_FILE = 'config/nlgate.schema.json';
export const DOCS_FILE = 'docs/configuration.md';

type Docs = Map<string, Map<string, string>>;

/** Doc comments of object-literal properties in a source file, by enclosing top-level const, then key. */
const parsed = new Map<string, Docs>();
function docComments(file: string): Docs {
  const known = parsed.get(file);
  if (known) return known;
  const source = ts.createSourceFile(file, readFileSync(`${ROOT}/${file}`, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Docs = new Map();
  for (const stmt of source.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const decl of stmt.declarationList.declarations) {
      const keys = new Map<string, string>();
      const visit = (node: ts.Node) => {
        if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
          // The whole comment text (tag-like words such as `@graph` are part of the sentence).
          const doc = ts
            .getJSDocCommentsAndTags(node)
            .filter(ts.isJSDoc)
            .map((d) => d.getText().replace(/^\/\*\*|\*\/$/g, '').replace(/^\s*\* ?/gm, ''))
            .join(' ')
            .replace(/\s+/g, ' ')
            .trim();
          if (doc && !keys.has(node.name.text)) keys.set(node.name.text, doc);
        }
        ts.forEachChild(node, visit);
      };
      visit(decl);
      out.set(decl.name.getText(source), keys);
    }
  }
  parsed.set(file, out);
  return out;
}

/** Where each part of the schema is declared: [JSON pointer prefix, source file, const name or * for any]. */
function descriptionSources(): Array<{ at: (path: string[]) => boolean; file: string; name: string }> {
  const section = (s: string, name: string) => ({ at: (p: string[]) => p.length === 2 && p[0] === s, file: 'src/config/schema.ts', name });
  return [
    section('server', 'ServerConfigSchema'),
    section('store', 'StoreConfigSchema'),
    section('defaults', 'DefaultsSchema'),
    section('limits', 'LimitsSchema'),
    { at: (p) => p.length === 2 && p[0] === 'agent', file: 'src/config/schema.ts', name: 'CommonAgentSchema' },
    ...builtinAdapters.map((a) => ({ at: (p: string[]) => p.length === 2 && p[0] === `agent:${a.kind}`, file: `adapters/${a.kind}/config.ts`, name: '*' })),
  ];
}

/** Finds the doc comment for a field: `path` is [section, key] (agents: ['agent' | 'agent:<kind>', key]). */
export function describeField(path: string[]): string | undefined {
  for (const src of descriptionSources()) {
    if (!src.at(path)) continue;
    const docs = docComments(src.file);
    const key = path[1]!;
    if (src.name !== '*') return docs.get(src.name)?.get(key);
    for (const keys of docs.values()) if (keys.has(key)) return keys.get(key);
  }
  return undefined;
}

/** The JSON Schema text, with every field's doc comment as its `description`. */
export function schemaText(): string {
  const schema = configJsonSchema(builtinAdapters) as any;
  const props = schema.properties as Record<string, any>;
  for (const section of ['server', 'defaults', 'limits']) {
    for (const [key, field] of Object.entries<any>(props[section]?.properties ?? {})) field.description ??= describeField([section, key]);
  }
  for (const variant of props.store?.oneOf ?? []) {
    for (const [key, field] of Object.entries<any>(variant.properties ?? {})) field.description ??= describeField(['store', key]);
  }
  const common = new Set(Object.keys(props.agents.items.oneOf[0].properties));
  for (const variant of props.agents.items.oneOf) {
    const kind = variant.properties.kind.const as string;
    for (const [key, field] of Object.entries<any>(variant.properties)) {
      if (key === 'kind') field.description = `The adapter kind: ${kind}.`;
      else field.description ??= (common.has(key) && describeField(['agent', key])) || describeField([`agent:${kind}`, key]);
    }
  }
  allowEnvPlaceholders(schema);
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/**
 * A string with a pattern or format may still be written as `${ENV}` in the file (the loader fills it
 * in before validating), so editors must not flag `url: ${REDIS_URL}`.
 */
function allowEnvPlaceholders(node: any): void {
  if (Array.isArray(node)) return node.forEach(allowEnvPlaceholders);
  if (node === null || typeof node !== 'object') return;
  for (const value of Object.values(node)) allowEnvPlaceholders(value);
  if (node.type === 'string' && (node.pattern !== undefined || node.format !== undefined)) {
    const { description, default: def, ...rule } = node;
    for (const k of Object.keys(node)) delete node[k];
    Object.assign(node, description === undefined ? {} : { description }, def === undefined ? {} : { default: def }, {
      anyOf: [rule, { type: 'string', pattern: '\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\\}' }],
    });
  }
}

/** The configuration reference page, from the JSON Schema text. */
export function docsText(schema: string = schemaText()): string {
  return renderConfigDocs(JSON.parse(schema));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const schema = schemaText();
  writeFileSync(`${ROOT}/${SCHEMA_FILE}`, schema);
  writeFileSync(`${ROOT}/${DOCS_FILE}`, docsText(schema));
  console.log(`wrote ${SCHEMA_FILE} and ${DOCS_FILE}`);
}
