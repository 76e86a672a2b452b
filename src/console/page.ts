/** `"` `&` `<` `>` escaped for an HTML attribute value. */
const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * The console's HTML shell: the script and stylesheet come from {base}/console/assets (no inline
 * code). `base` is the gateway's mount path ('' at the root); the client reads it from the
 * `nlgate-base` meta element and prefixes every gateway URL it calls with it.
 */
export function consolePage(base: string): string {
  const b = attr(base);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="nlgate-base" content="${b}">
<title>nlgate console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${b}/console/assets/styles.css">
<script type="module" src="${b}/console/assets/app.js"></script>
</head>
<body>
<noscript>The nlgate console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}
