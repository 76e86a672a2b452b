/**
 * Interop vectors for NLIP (interop.md "NLIP"): shapes real peers send, each with the reply the
 * gateway documents (docs/nlip.md "What the gateway accepts"). Shared by the parser unit tests and
 * the binding's HTTP tests so both layers agree.
 */

export interface AcceptedVector {
  name: string;
  /** The raw JSON body. */
  body: unknown;
  /** The question the binding reads from it ('' when it has none). */
  text: string;
  control: boolean;
  legacyControl?: boolean;
}

export interface RejectedVector {
  name: string;
  /** The raw body text (not necessarily JSON). */
  raw: string;
  /** A phrase the 400 body must contain, naming what is wrong. */
  says: string;
}

export const acceptedVectors: AcceptedVector[] = [
  {
    name: 'lowercase keys (every implementation)',
    body: { messagetype: 'data', format: 'text', subformat: 'english', content: 'pasta recipes' },
    text: 'pasta recipes',
    control: false,
  },
  {
    name: 'PascalCase keys (the spec schema)',
    body: { MessageType: 'Data', Format: 'Text', Subformat: 'English', Content: 'pasta recipes', Submessages: [{ Format: 'Text', Subformat: 'English', Content: 'with basil', Label: 'more' }] },
    text: 'pasta recipes\nwith basil',
    control: false,
  },
  {
    name: 'UPPERCASE keys and format',
    body: { FORMAT: 'TEXT', SUBFORMAT: 'ENGLISH', CONTENT: 'soup' },
    text: 'soup',
    control: false,
  },
  {
    name: 'nulls for absent keys (servers send them)',
    body: { messagetype: null, format: 'text', subformat: 'english', content: 'soup', label: null, submessages: null },
    text: 'soup',
    control: false,
  },
  {
    name: 'null keys inside submessages',
    body: { format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'text', subformat: 'english', content: 'quick', label: null }] },
    text: 'soup\nquick',
    control: false,
  },
  {
    name: 'legacy control: true',
    body: { control: true, format: 'text', subformat: 'english', content: 'what are your policies?' },
    text: 'what are your policies?',
    control: true,
    legacyControl: true,
  },
  {
    name: 'legacy control: false with SDK-style basic message',
    body: { control: false, format: 'text', subformat: 'english', content: 'soup' },
    text: 'soup',
    control: false,
    legacyControl: true,
  },
  {
    name: 'messagetype CONTROL in upper case',
    body: { messagetype: 'CONTROL', format: 'text', subformat: 'english', content: 'hello' },
    text: 'hello',
    control: true,
  },
  {
    name: 'control as the string "true"',
    body: { control: 'true', format: 'text', subformat: 'english', content: 'hello' },
    text: 'hello',
    control: true,
    legacyControl: true,
  },
  {
    name: 'odd text subformats (en, English, EN-us) and a missing subformat',
    body: { format: 'text', subformat: 'en', content: 'one', submessages: [{ format: 'text', subformat: 'EN-us', content: 'two' }, { format: 'text', content: 'three' }] },
    text: 'one\ntwo\nthree',
    control: false,
  },
  {
    name: 'odd token and structured subformats (conversation_abc, JSON)',
    body: { format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'token', subformat: 'conversation_abc', content: 'peer-token-1' }, { format: 'structured', subformat: 'JSON', content: '{"itemType":"Recipe"}' }] },
    text: 'soup',
    control: false,
  },
  {
    name: 'odd binary subformats (jpeg, image/base64, audio/wav;base64, audio/.mp3)',
    body: {
      format: 'text', subformat: 'english', content: 'what is this?',
      submessages: [
        { format: 'binary', subformat: 'jpeg', content: 'AAEC' },
        { format: 'binary', subformat: 'image/base64', content: 'AAEC' },
        { format: 'binary', subformat: 'audio/wav;base64', content: 'AAEC' },
        { format: 'binary', subformat: 'audio/.mp3', content: 'AAEC' },
      ],
    },
    text: 'what is this?',
    control: false,
  },
  {
    name: 'content as an object (structured json, and on a text part)',
    body: { format: 'structured', subformat: 'json', content: { query: 'x' }, submessages: [{ format: 'text', subformat: 'english', content: { note: 'not text' } }, { format: 'text', subformat: 'english', content: 'soup' }] },
    text: 'soup',
    control: false,
  },
  {
    name: 'numbers: an error code, a numeric label and subformat',
    body: { format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'error', subformat: 'code', content: 42 }, { format: 'text', subformat: 7, content: 'hot', label: 3 }] },
    text: 'soup\nhot',
    control: false,
  },
  {
    name: 'a number as text content',
    body: { format: 'text', subformat: 'english', content: 1984 },
    text: '1984',
    control: false,
  },
  {
    name: 'an array as structured content (kept as JSON text)',
    body: { format: 'text', subformat: 'english', content: 'soup', submessages: [{ format: 'structured', subformat: 'json', content: [1, 2] }] },
    text: 'soup',
    control: false,
  },
  {
    name: 'the error format (dropped from later drafts, still sent by the SDK)',
    body: { format: 'error', subformat: 'text', content: 'something went wrong', submessages: [{ format: 'text', subformat: 'english', content: 'soup' }] },
    text: 'soup',
    control: false,
  },
  {
    name: 'unknown extra keys are ignored',
    body: { format: 'text', subformat: 'english', content: 'soup', extra: { a: 1 }, sessionid: 'x' },
    text: 'soup',
    control: false,
  },
];

export const rejectedVectors: RejectedVector[] = [
  { name: 'a body that is not JSON', raw: 'hello there', says: 'not JSON' },
  { name: 'an empty body', raw: '', says: 'not JSON' },
  { name: 'a JSON array', raw: '[{"format":"text","subformat":"english","content":"x"}]', says: 'must be a JSON object, not an array' },
  { name: 'a JSON string', raw: '"pasta"', says: 'must be a JSON object' },
  { name: 'JSON null', raw: 'null', says: 'must be a JSON object' },
  { name: 'a missing format', raw: '{"subformat":"english","content":"x"}', says: 'format: required' },
  { name: 'an unknown format', raw: '{"format":"video","subformat":"mp4","content":"x"}', says: 'format: must be one of text, token, structured, binary, location, error, generic (got "video")' },
  { name: 'a format that is not a string', raw: '{"format":3,"subformat":"english","content":"x"}', says: 'format: must be a string' },
  { name: 'a missing content', raw: '{"format":"text","subformat":"english"}', says: 'content: required' },
  { name: 'content null (= absent)', raw: '{"format":"text","subformat":"english","content":null}', says: 'content: required' },
  { name: 'an array as text content', raw: '{"format":"text","subformat":"english","content":["a","b"]}', says: 'content: must be a string or an object, not an array' },
  { name: 'submessages that are not an array', raw: '{"format":"text","subformat":"english","content":"x","submessages":{"format":"text"}}', says: 'submessages: must be an array' },
  { name: 'a submessage that is not an object', raw: '{"format":"text","subformat":"english","content":"x","submessages":["hi"]}', says: 'submessages.0: must be a JSON object, not a string' },
  { name: 'a submessage with an unknown format', raw: '{"format":"text","subformat":"english","content":"x","submessages":[{"format":"audio","subformat":"mp3","content":"AA=="}]}', says: 'submessages.0.format: must be one of' },
  { name: 'messagetype that is not a string', raw: '{"messagetype":1,"format":"text","subformat":"english","content":"x"}', says: 'messagetype: must be a string' },
  { name: 'control that is not a boolean', raw: '{"control":"maybe","format":"text","subformat":"english","content":"x"}', says: 'control: must be true or false' },
];
