// SPDX-License-Identifier: GPL-3.0-or-later
// node --perf-basic-prof page_node.js SECONDS [PIDFILE]: two busy threads
// (the main one and a worker_threads worker) for SECONDS, each running
// a recursive fib, a string builder and a sort, so that a -g recording
// has deep stacks of JIT code over node's own frames in both threads:
// the large profile the html page must still open quickly.  PIDFILE
// gets our pid, so that the benchmark can remove the map we write.
'use strict';
const { Worker, isMainThread, workerData } = require('worker_threads');

function pageFib(n) {
	return n < 2 ? n : pageFib(n - 1) + pageFib(n - 2);
}

function pageText(n) {
	const parts = [];
	for (let i = 0; i < n; i++)
		parts.push(String.fromCharCode(65 + (i % 26)));
	return parts.join('').length;
}

function pageSort(n) {
	const a = [];
	for (let i = 0; i < n; i++)
		a.push((i * 7919) % n);
	a.sort(function (x, y) { return x - y; });
	return a[n >> 1];
}

function run(seconds) {
	const end = Date.now() + seconds * 1000;
	let acc = 0;
	while (Date.now() < end) {
		acc += pageFib(22);
		acc += pageText(2000);
		acc += pageSort(3000);
	}
	return acc;
}

if (isMainThread) {
	const seconds = Number(process.argv[2]);
	if (!(seconds > 0)) {
		console.error('usage: page_node.js SECONDS [PIDFILE]');
		process.exit(2);
	}
	if (process.argv[3])
		require('fs').writeFileSync(process.argv[3], `${process.pid}\n`);
	const w = new Worker(__filename, { workerData: seconds });
	const mine = run(seconds);
	w.on('message', function (theirs) { console.log(mine + theirs); });
} else {
	require('worker_threads').parentPort.postMessage(run(workerData));
}
