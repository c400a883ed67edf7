// The Kubernetes API's schema, on each object of the JSON array in
// argv[2] (tests/deploy_check.sh turns deploy/kubernetes/*.yaml into it):
// kubernetes-models' validators, made from the API's OpenAPI document
// (tests/schema/, installed by scripts/deps.sh --tests).  One line per
// object, "valid KIND NAME" or "invalid KIND NAME: why"; exit status 1
// when one is invalid or of a kind it does not know.
'use strict';
const fs = require('fs');
const path = require('path');
const models = path.join(__dirname, 'schema', 'node_modules', 'kubernetes-models');
let bad = 0;
for (const obj of JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))) {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  const name = `${obj.kind} ${obj.metadata && obj.metadata.name}`;
  let Model;
  try {
    Model = require(path.join(models, group || '', version, obj.kind))[obj.kind];
  } catch (e) {
    console.log(`invalid ${name}: no schema for ${obj.apiVersion} ${obj.kind}`);
    bad++;
    continue;
  }
  try {
    new Model(obj).validate();
    console.log(`valid ${name} (${obj.apiVersion})`);
  } catch (e) {
    console.log(`invalid ${name}: ${e.message}`);
    bad++;
  }
}
process.exit(bad ? 1 : 0);
