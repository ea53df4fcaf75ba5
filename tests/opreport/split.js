// SPDX-License-Identifier: GPL-3.0-or-later
// node split.js SECONDS RATIO: heavyJs runs the loop of lightJs RATIO
// times as long, so their shares are RATIO:1 (3 gives 75/25, 1 gives
// 50/50).  Both stay separate functions in the JIT's code.
'use strict';

let sink = 0;

// the same loop, written twice so that each function has its own code
function heavyJs(n) {
	for (let i = 0; i < n; i++)
		sink = (sink + (i ^ (sink >>> 3))) | 0;
}

function lightJs(n) {
	for (let i = 0; i < n; i++)
		sink = (sink + (i ^ (sink >>> 3))) | 0;
}

// the process's CPU time in ms: the run's length is its own CPU time,
// not the clock's, so that on a busy machine it does the same work
function cpuMs() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

const seconds = Number(process.argv[2]) || 2;
const ratio = Number(process.argv[3]) || 3;
const end = cpuMs() + seconds * 1000;
while (cpuMs() < end) {
	heavyJs(ratio * 200000);
	lightJs(200000);
}
console.log(sink === 0.5 ? 'impossible' : 'done');
