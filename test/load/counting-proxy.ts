/**
 * The counting proxy in a process of its own (scripts/rate-at-target.ts): started with `fork` and the upstream's URL as
 * its argument, it forwards every request there (test/load/arrivals.ts), sends `{ url }` to its parent once it listens,
 * and answers `{ arrivals }` (Date.now() of each request's arrival, in order) to a message `'arrivals'`. A process of
 * its own, so that what it counts is what a target beside the run reads, not the run's own clock.
 *
 * It ends when its parent asks (`'stop'`), when the parent goes away (the IPC channel closes) and at the latest after
 * the milliseconds of its second argument (default an hour).
 */
import { arrivalCounter } from './arrivals.js';

const [upstream, maxMsArg] = process.argv.slice(2);
if (upstream === undefined || process.send === undefined) {
  process.stderr.write('usage: fork test/load/counting-proxy.ts UPSTREAM_URL [MAX_MS] (with an IPC channel)\n');
  process.exit(2);
}
const maxMs = Number(maxMsArg ?? 3_600_000);

const counter = await arrivalCounter({ upstream });
const end = async (code: number) => {
  await Promise.race([counter.close(), new Promise((r) => setTimeout(r, 2000).unref())]);
  process.exit(code);
};
setTimeout(() => void end(3), Number.isFinite(maxMs) && maxMs > 0 ? maxMs : 3_600_000).unref();
process.on('disconnect', () => void end(0));
process.on('message', (m) => {
  if (m === 'arrivals') process.send!({ arrivals: counter.arrivals });
  else if (m === 'stop') void end(0);
});
process.send({ url: counter.url });
