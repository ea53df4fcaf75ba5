// SPDX-License-Identifier: GPL-3.0-or-later
// node native_leaf.js [SECONDS]: a hot JS function whose time is in
// libc (Buffer.copy is memcpy), called through a three times for each
// call through b.  Prints the CPU time each path took, the truth a
// report is compared with:
//   a SECONDS
//   b SECONDS
'use strict';
const seconds = Number(process.argv[2] || 2);
const src = Buffer.alloc(4 << 20, 1), dst = Buffer.alloc(4 << 20);
function hot() { src.copy(dst); }
function a() { hot(); }
function b() { hot(); }
function cpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }
let ta = 0, tb = 0;
while (ta + tb < seconds) {
	let t = cpu();
	a(); a(); a();
	ta += cpu() - t;
	t = cpu();
	b();
	tb += cpu() - t;
}
console.log('a ' + ta.toFixed(6) + '\nb ' + tb.toFixed(6));
