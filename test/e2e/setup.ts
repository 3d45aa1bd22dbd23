// Every browser test file: a read outside the repository fails where it happens (see
// test/readGuard.ts); downloads are saved into test-results/ before they are read.
import { guardReads } from '../readGuard';

guardReads();
