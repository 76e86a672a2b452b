import { ElicitationSchema, type AskRequest, type Elicitation, type Question } from '../../protocol/nlweb/index.ts';

type Property = Record<string, unknown>;

/** MCP elicitation schemas allow flat primitive properties only (MCP "Elicitation": requested schema). */
function propertyFor(q: Question): Property {
  const base: Property = { title: q.text };
  const options = q.options ?? [];
  switch (q.type) {
    case 'single_select':
      return { ...base, type: 'string', enum: options, ...(typeof q.default === 'string' ? { default: q.default } : {}) };
    case 'multi_select':
      return { ...base, type: 'array', items: { type: 'string', enum: options }, ...(Array.isArray(q.default) ? { default: q.default } : {}) };
    case 'number':
      return { ...base, type: 'number', ...(typeof q.default === 'number' ? { default: q.default } : {}) };
    case 'boolean':
      return { ...base, type: 'boolean', ...(typeof q.default === 'boolean' ? { default: q.default } : {}) };
    default:
      // free_text and any extension type: a text answer is always possible.
      return { ...base, type: 'string', ...(typeof q.default === 'string' ? { default: q.default } : {}) };
  }
}

/**
 * An NLWeb elicitation (4.1.3) as MCP `elicitation/create` form params: one property per question,
 * keyed by its `id`; none are required, so a user may answer only some.
 */
export function elicitationForm(e: Elicitation): { mode: 'form'; message: string; requestedSchema: { type: 'object'; properties: Record<string, Property> } } {
  const properties: Record<string, Property> = Object.fromEntries((e.questions ?? []).map((q) => [q.id, propertyFor(q)]));
  return { mode: 'form', message: e.text ?? 'More information is needed.', requestedSchema: { type: 'object', properties } };
}

/** True when the elicitation has questions a form can carry (else it is shown as text only). */
export function hasQuestions(e: Elicitation): boolean {
  return (e.questions ?? []).length > 0;
}

function answerText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join(', ') : String(value);
}

/**
 * The follow-up ask after the user answered (gateway convention; NLWeb 4.1.3 leaves it open): the
 * original query with the answers appended as text, so any agent can use them, and kept
 * structured in `context.answers`; the original query joins `context.prev`.
 */
export function askWithAnswers(request: AskRequest, e: Elicitation, answers: Record<string, unknown>): AskRequest {
  const known = new Map((e.questions ?? []).map((q) => [q.id, q]));
  const given = Object.entries(answers).filter(([id, v]) => known.has(id) && v !== undefined && v !== null && v !== '');
  if (given.length === 0) return request;
  const text = given.map(([id, v]) => `${known.get(id)!.text} ${answerText(v)}`).join('; ');
  const prev = request.context?.prev ?? [];
  return {
    ...request,
    query: { ...request.query, text: `${request.query.text} (${text})` },
    context: { ...request.context, prev: [...prev, request.query.text], answers: Object.fromEntries(given) },
  };
}

/** The `requestState` of an `ask` elicitation round (SEP-2322): the elicitation itself. */
export function encodeElicitationState(e: Elicitation): string {
  return Buffer.from(JSON.stringify(e)).toString('base64url');
}

/**
 * The elicitation a 2026 client echoes back as `requestState` (SEP-2322). It is the client's to
 * hold and carries nothing the client could not have sent in its own follow-up ask, so it is not
 * signed; it is validated like any input: anything that is not an elicitation is ignored.
 */
export function decodeElicitationState(state: unknown): Elicitation | undefined {
  if (typeof state !== 'string') return undefined;
  try {
    const parsed = ElicitationSchema.safeParse(JSON.parse(Buffer.from(state, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
