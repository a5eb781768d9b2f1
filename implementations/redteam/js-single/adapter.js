#!/usr/bin/env node
'use strict';
// RED-TEAM ADAPTER — one bug at a time (issue 47's diagnosis test). The careful js-core
// verifier (../js-core/dos.js) with exactly the bug named by BUG (one of the list below), or
// none when BUG is unset or empty. harness/tests/diagnosis.rs runs each and requires the
// report's first finding to name the bug's own catalogue fault (spec/data/faults.json), and no
// other critical finding beyond what the careful path already has.
//
//   skip-4d              step 4d skipped: an attenuation may move the expiry later
//   any-signature        no token signature is verified
//   any-action           step 7 ignores the requested action
//   no-attenuator-check  step 4a skipped
//   depth-le             4e compares `>` where `>=` is required
//   budget-gt            step 6 denies only when spent > budget (the text: >=)
//   expiry-inclusive     step 5 treats `now == expiresAt` as expired
//   no-revocation        step 2 skipped
//   expiry-authority-only  step 5 uses the authority's expiry, ignoring attenuations
const ALLOWED = [
  'skip-4d', 'any-signature', 'any-action', 'no-attenuator-check', 'depth-le', 'budget-gt',
  'expiry-inclusive', 'no-revocation', 'expiry-authority-only',
];
const bugName = process.env.BUG ?? '';
if (bugName !== '' && !ALLOWED.includes(bugName)) {
  process.stderr.write(`BUG must be one of ${ALLOWED.join(', ')} (or empty), not ${JSON.stringify(bugName)}\n`);
  process.exit(2);
}
global.DEFAULT_BUGS = [];
process.env.REDTEAM_BUGS = bugName;
global.IMPLEMENTATION = { name: 'redteam js-single (one seeded bug)', version: '0.0.1', language: 'javascript', bugs: bugName };
require('../js-core/adapter.js');
