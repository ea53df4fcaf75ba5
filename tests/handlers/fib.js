// SPDX-License-Identifier: GPL-3.0-or-later
// A node workload with one hot JIT-compiled function (fib) and some work
// elsewhere, so that fib's share is a number worth comparing.
'use strict';

function fib(n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function cold(n) {
	const parts = [];
	for (let i = 0; i < n; i++)
		parts.push(String.fromCharCode(65 + (i % 26)));
	return parts.join('').length;
}

// the process's CPU time in ms: the run's length is its own CPU time,
// not the clock's, so that on a busy machine it does the same work
function cpuMs() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

const seconds = Number(process.argv[2]) || 3;
const end = cpuMs() + seconds * 1000;
let acc = 0;
while (cpuMs() < end) {
	acc += fib(28);
	acc += cold(30000);
}
console.log(acc > 0 ? 'done' : 'impossible');
