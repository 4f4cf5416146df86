// The Node driver's half of TestNodeDriverReturnMode: run with
//   node loop.mjs <uri> <db> <phase>
// phase "held": deleteMany({a: 1}) must fail; prints the error's code,
// codeName and message, then a count on the same client.
// phase "resend": deleteMany({a: 1}) again; prints deletedCount or the error.
import { MongoClient } from 'mongodb';

const [uri, dbName, phase] = process.argv.slice(2);
const client = new MongoClient(uri, { retryWrites: false, serverSelectionTimeoutMS: 15000 });
try {
  const coll = client.db(dbName).collection('t');
  try {
    const res = await coll.deleteMany({ a: 1 });
    console.log(`DELETED ${res.deletedCount}`);
  } catch (err) {
    console.log(`ERR ${err.code} ${err.codeName} ${err.message}`);
  }
  if (phase === 'held') {
    console.log(`COUNT ${await coll.countDocuments({})}`);
  }
} finally {
  await client.close();
}
