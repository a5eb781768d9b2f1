#!/usr/bin/env node
// A stdio adapter (spec/adapter-protocol.md) around example/tiny-impl.js, so
// `delegateos-conform run --impl 'node example/adapter.mjs'` judges the same implementation the
// node:test example judges in-process (packages/ci.sh compares the two).

import { createInterface } from 'node:readline';
import { answer } from 'delegateos-vectors';
import { makeTinyImpl } from './tiny-impl.js';

let impl = makeTinyImpl();
const send = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  if (req.cmd === 'hello') {
    send({
      seq: req.seq,
      protocol: 1,
      implementation: { name: 'delegateos-vectors tiny example (js)', version: '0.1.0', language: 'javascript' },
      operations: Object.keys(impl),
    });
  } else if (req.cmd === 'run') {
    send({ seq: req.seq, ...answer(impl, req.case) });
  } else if (req.cmd === 'bye') {
    send({ seq: req.seq, outcome: 'ok' });
    break;
  }
}
