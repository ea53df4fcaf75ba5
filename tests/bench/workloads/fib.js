// SPDX-License-Identifier: GPL-3.0-or-later
// node --perf-basic-prof fib.js ROUNDS [PIDFILE]: a fixed amount of
// work in one hot JS function, benchFibHot, so that the recording cost
// shows as a longer run and both perf and opjit can name the function
// from /tmp/perf-PID.map.  PIDFILE gets our pid, so that the benchmark
// can remove the map it made us write.
'use strict';

function benchFibHot(n) {
	return n < 2 ? n : benchFibHot(n - 1) + benchFibHot(n - 2);
}

const rounds = Number(process.argv[2]);
if (!Number.isInteger(rounds) || rounds < 1) {
	console.error(`fib.js: bad round count '${process.argv[2]}'`);
	process.exit(2);
}
if (process.argv[3])
	require('fs').writeFileSync(process.argv[3], `${process.pid}\n`);
let sum = 0;
for (let i = 0; i < rounds; i++)
	sum += benchFibHot(25);
console.log(sum);
