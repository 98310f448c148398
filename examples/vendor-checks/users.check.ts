// A check of your own, written with the suite's conformance() wrapper: it cites a requirement of requirements.yaml
// beside it, and is run, reported and selected (--requirement, --check) like the built-in checks.
import { conformance } from 'canton-conformance';

conformance(
  {
    id: 'acme.create-user.empty-id-400',
    title: 'answers 400 to a user with an empty id',
    api: 'ledger',
    operations: ['createUser'],
    requirements: ['acme.users.empty-id-400'],
  },
  async (t) => {
    // t.call sends an operation of the suite's OpenAPI documents to the configured target, with the role's token, and
    // records the exchange for the reports (a failure carries it, with a curl line that repeats it)
    const x = await t.call('createUser', {
      json: { user: { id: '', isDeactivated: false, metadata: { resourceVersion: '', annotations: {} } }, rights: [] },
    });
    t.expectStatus(x, 400, { what: 'creating a user with an empty id' });
  },
);
