// The Node driver's half of TestClientBulkWriteHeld: run with
//   node bulk.mjs <uri> <db>
// MongoClient.bulkWrite (MongoDB 8.0's bulkWrite command, one command for
// both operations): insertOne into <db>.nb (with its own _id, so
// that the resend is identical), deleteMany({a: 1}) from <db>.nt.
// Prints "BULK inserted=<n> deleted=<n>" or the error's code, codeName and
// message.
import { MongoClient } from 'mongodb';

const [uri, dbName] = process.argv.slice(2);
const client = new MongoClient(uri, { retryWrites: false, serverSelectionTimeoutMS: 15000 });
try {
  const res = await client.bulkWrite([
    { name: 'insertOne', namespace: `${dbName}.nb`, document: { _id: 'nb-1', a: 7 } },
    { name: 'deleteMany', namespace: `${dbName}.nt`, filter: { a: 1 } },
  ]);
  console.log(`BULK inserted=${res.insertedCount} deleted=${res.deletedCount}`);
} catch (err) {
  // A MongoClientBulkWriteError carries the server's error as its cause.
  const e = err.cause ?? err;
  console.log(`ERR ${e.code} ${e.codeName} ${e.message}`);
} finally {
  await client.close();
}
