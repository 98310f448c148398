// The V8 setting every process and thread of a run uses (the CLI's threads, the HTML report's child, the benchmark's
// served references): V8 optimises a function once it has run about 8 times longer than by default. A run is short and
// loads its modules in four isolates (the main thread, the embedded reference's, two suite workers), each compiling its
// own optimised code on V8's background threads (about 2.5 of the default run's 11 CPU-seconds).
// The knob is V8's own, so it depends on the Node.js line (each measured in paired default runs on the 2-core machine):
// - Node 20 (V8 11): --interrupt-budget 8 times its default: wall 0.87, CPU 0.84 (4 or 16 times gained less; no
//   optimising compiler at all lost, 1.05);
// - Node 22 (V8 12), which has no --interrupt-budget: TurboFan's invocation count 8 times its default: wall 0.88 and
//   0.96 in two sets of pairs, peak RSS 10 MiB lower;
// - Node 24 and later (V8 13, Maglev on by default): no setting; both counts 8 times theirs gave 1.04 (Node 21, never
//   measured: none).
// Always set with v8.setFlagsFromString, which ignores a flag its V8 lacks, never on a command line, where one ends the
// process.
const major = Number(process.versions.node.split('.')[0]);
export const V8_FLAGS = major <= 20 ? '--interrupt-budget=540672' : major === 22 ? '--invocation-count-for-turbofan=24000' : '';
