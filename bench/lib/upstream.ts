/**
 * The bench's static NLWeb v0.55 upstream (issue 12: "a 3-result JSON answer served by nginx
 * `return 200`"): the same bytes for every request, so what is measured is the hop, not the agent.
 */

const item = (i: number) => ({
  '@type': 'Recipe',
  name: `Pasta ${i}`,
  url: `https://recipes.example.com/pasta-${i}`,
  description: 'A quick weeknight pasta with garlic, olive oil and parmesan.',
});

/** `POST /ask` JSON answer (spec 4.1.1): three results. */
export const ANSWER_JSON = JSON.stringify({
  _meta: { response_type: 'answer', response_format: 'conversational_search', version: '0.55' },
  results: [item(1), item(2), item(3)],
});

/** `POST /ask` SSE answer (spec 6.1): start, three result events, complete. */
export const ANSWER_SSE =
  'event: start\ndata: {"_meta":{"response_type":"answer","version":"0.55"}}\n\n' +
  [1, 2, 3].map((i) => `event: result\ndata: ${JSON.stringify({ index: i - 1, item: item(i) })}\n\n`).join('') +
  'event: complete\ndata: {}\n\n';

/** `POST /await` answer to a check-in (spec 4.2): the same three results. */
export const AWAIT_JSON = ANSWER_JSON;
