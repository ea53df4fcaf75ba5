// SPDX-License-Identifier: GPL-3.0-or-later
// node hot.js SECONDS: one hot function, a loop of integer arithmetic
// that V8 compiles to machine code, called until SECONDS have passed.
function hot(n) {
	let s = 1;
	for (let i = 0; i < n; i++) { // LOOP-HEAD
		s = (Math.imul(s, 31) + i) | 0; // HOT-LOOP
		s ^= s >>> 7; // HOT-LOOP
	}
	return s;
}

// the process's CPU time in ms: the run's length is its own CPU time,
// not the clock's, so that on a busy machine it does the same work
function cpuMs() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

const secs = Number(process.argv[2] || 3);
const end = cpuMs() + secs * 1000;
let sink = 0;
while (cpuMs() < end)
	sink ^= hot(1000000);
console.log("hot done " + (sink & 1));
