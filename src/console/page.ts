/** The console's HTML shell: the script and stylesheet come from /console/assets (no inline code). */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>nlgate console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/styles.css">
<script type="module" src="/console/assets/app.js"></script>
</head>
<body>
<noscript>The nlgate console needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
