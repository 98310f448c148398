// The V8 setting every process and thread of a run uses (the CLI's threads, the HTML report's child, the benchmark's
// served references): V8 optimises a function once it has run about 8 times longer than by default. A run is short and
// loads its modules in four isolates (the main thread, the embedded reference's, two suite workers), each compiling its
// own optimised code on V8's background threads (about 2.5 of the default run's 11 CPU-seconds); paired default runs:
// wall 0.87, CPU 0.84 (4 or 16 times the budget gained less; no optimising compiler at all lost, 1.05).
export const V8_FLAGS = '--interrupt-budget=540672';
