/** `npm run build:console`: bundles the web console (console/src) into dist/console. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bundleConsole, CONSOLE_DIST } from '../src/console/bundle.ts';

const assets = await bundleConsole();
await mkdir(CONSOLE_DIST, { recursive: true });
await writeFile(join(CONSOLE_DIST, 'app.js'), assets.js);
await writeFile(join(CONSOLE_DIST, 'styles.css'), assets.css);
console.log(`dist/console: app.js ${assets.js.length} bytes, styles.css ${assets.css.length} bytes`);
