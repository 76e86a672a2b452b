/**
 * Conversation ids that are documentation, not ids (issue 13, item 9): a user who pastes
 * `"conversation_id":"<conversation_id>"` or an unexpanded `$CONV` must hear so, not silently start a
 * new conversation. Only shapes no gateway or agent would mint are refused; everything else passes.
 */
const PLACEHOLDERS: readonly RegExp[] = [
  /^\s*$/, // empty: a shell variable that expanded to nothing
  /^<[^<>]*>$/, // <conversation_id>
  /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/, // $CONV, ${CONV}: not expanded by the shell
  /^\{\{[^{}]*\}\}$/, // {{conversation_id}}
  /^\[[^[\]]*\]$/, // [conversation id]
  /(^|_)(PASTE|YOUR|REPLACE|PLACEHOLDER|CHANGEME|CHANGE_ME)(_|$)/i, // PASTE_HERE, YOUR_ID, conv_REPLACE_ME
  /^(x{3,}|\.{3}|…|null|undefined|none|todo|tbd|string|id|conversation_id|conversation-id|conversationid)$/i,
];

/** Why a `meta.session_context.conversation_id` value is a placeholder, or undefined when it may be real (3.4). */
export function placeholderProblem(value: string): string | undefined {
  if (!PLACEHOLDERS.some((p) => p.test(value))) return undefined;
  return `${JSON.stringify(value)} looks like a placeholder, not a conversation id: send back the conversation_id of an earlier answer's _meta.session_context, or leave it out to start a new conversation`;
}
