// SPDX-License-Identifier: GPL-3.0-or-later
// node --perf-basic-prof manyfuncs.js FUNCTIONS SECONDS [PIDFILE]: calls
// FUNCTIONS distinct JS functions, benchMany0 to benchManyN-1, in turn
// for SECONDS, so that node's perf map holds an entry for each (two, once
// the baseline compiler has taken them) and samples land all over it: a
// profile whose JIT map is large.  PIDFILE gets our pid, so that the
// benchmark can remove the map it made us write.
'use strict';

const functions = Number(process.argv[2]);
const seconds = Number(process.argv[3]);
if (!Number.isInteger(functions) || functions < 1 ||
    !(seconds > 0)) {
	console.error('usage: manyfuncs.js FUNCTIONS SECONDS [PIDFILE]');
	process.exit(2);
}
if (process.argv[4])
	require('fs').writeFileSync(process.argv[4], `${process.pid}\n`);
// one source text, so that each function is its own code object with
// its own name in the map, not one closure shared by all
let src = '';
for (let i = 0; i < functions; i++) {
	src += `function benchMany${i}(x) {\n` +
		'\tfor (let j = 0; j < 20; j++)\n' +
		`\t\tx = (x * 31 + j + ${i}) | 0;\n` +
		'\treturn x;\n}\n';
}
src += 'return [';
for (let i = 0; i < functions; i++)
	src += `benchMany${i},`;
src += '];\n';
const fns = new Function(src)();
const end = Date.now() + seconds * 1000;
let sum = 0;
do {
	for (let i = 0; i < functions; i++)
		sum = fns[i](sum);
} while (Date.now() < end);
console.log(sum);
