// Makes sure a Chromium for the browser tests exists before they run.
// Order: $CHROME_PATH, then /usr/bin/chromium; if neither exists and this is a Debian
// machine where we are root, install Debian's chromium package; otherwise fail loudly.
// Browser tests are never skipped for want of a browser.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium'].filter(Boolean);
const found = candidates.find((path) => existsSync(path));
if (found) {
  console.log(`Browser tests will use ${found}`);
  process.exit(0);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get') && existsSync('/etc/debian_version');
if (isRoot && hasApt) {
  console.log("No Chromium found: installing Debian's chromium package (apt-get install -y chromium)...");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env });
  if (existsSync('/usr/bin/chromium')) process.exit(0);
}

console.error(
  [
    'Browser tests need Chromium and none was found.',
    '  Debian/Ubuntu: sudo apt-get install -y chromium',
    '  macOS:         brew install --cask chromium',
    '  Or point CHROME_PATH at an existing Chrome/Chromium binary, e.g.',
    '  CHROME_PATH="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" npm test',
  ].join('\n'),
);
process.exit(1);
