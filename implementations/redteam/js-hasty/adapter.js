#!/usr/bin/env node
'use strict';
// RED-TEAM ADAPTER — a deliberately defective DelegateOS verifier ("weekend node port").
// Not an implementation to copy: it exists so that harness/tests/redteam.rs can prove the
// vector corpus catches each seeded bug. Code: ../js-core/dos.js (bugs are `bug('name')`).
//
// Seeded bugs (set REDTEAM_BUGS to a comma list to override; "" = careful path):
//   budget-falsy            `if (att.maxBudgetMicrocents)` — maxBudgetMicrocents: 0 is ignored
//   depth-falsy             `if (att.maxChainDepth)` — maxChainDepth: 0 is ignored
//   caps-empty-inherit      `if (att.allowedCapabilities?.length)` — [] means "inherit"
//   glob-regex-unescaped    glob → RegExp without escaping metacharacters
//   glob-replace-first      `.replace('**', …)` replaces only the first `**`
//   glob-star-empty         `*` → `[^/]*` (empty and partial segments match)
//   date-parse              Date.parse for every timestamp (Feb 30 rolls over, leap second
//                           → NaN → never expires, no offset → local time)
//   b64-lenient             Buffer.from(s, 'base64url') (padding, `+`/`/`, trailing bits)
//   json-lenient            JSON.parse (duplicate keys last-wins, no canonical check, null = unset)
//   request-as-pattern      step 7 also grants when the request glob matches the grant text
//   revid-blake2b512        revocation ids from createHash('blake2b512') truncated to 32 bytes
//   expiry-authority-only   step 5 only looks at authority.expiresAt
//   unsafe-integers         `typeof x === 'number'` for integers (1.5, 2^53, -1 accepted)
//   subset-via-match        subset = glob-match the parent pattern against the child's text
//   attenuator-vs-authority 4a accepts the previous delegatee OR authority.delegatee
//   resource-normalize      path.posix.normalize() on pattern and resource
//   resource-nfc            .normalize('NFC') on pattern and resource
//   revocation-ids-raw      no canonical-form check; revocation ids over each block's raw bytes
//   revocation-ids-typed    unknown block members ignored; revocation ids over the typed block
//                           re-serialized without them (signatures over the block as received)
//   key-padding-lenient     keyed signature checks decode the key with Buffer.from(k, 'base64url')
global.DEFAULT_BUGS = [
  'budget-falsy', 'depth-falsy', 'caps-empty-inherit', 'glob-regex-unescaped', 'glob-replace-first',
  'glob-star-empty', 'date-parse', 'b64-lenient', 'json-lenient', 'request-as-pattern',
  'revid-blake2b512', 'expiry-authority-only', 'unsafe-integers', 'subset-via-match',
  'attenuator-vs-authority', 'resource-normalize', 'resource-nfc', 'revocation-ids-raw',
  'revocation-ids-typed', 'key-padding-lenient',
];
global.IMPLEMENTATION = { name: 'redteam js-hasty (deliberately defective)', version: '0.0.1', language: 'javascript', bugs: process.env.REDTEAM_BUGS ?? global.DEFAULT_BUGS.join(',') };
require('../js-core/adapter.js');
