const { MongoClient } = require('mongodb');
(async () => {
  const c = new MongoClient(process.argv[2]);
  await c.connect();
  const t = c.db('test').collection('t');
  await t.deleteMany({a: 1});
  await t.insertMany([{_id: 1, a: 1}, {_id: 2, a: 2, s: "x"}]);
  await t.find({a: {$gt: 1}}).sort({a: -1}).limit(5).toArray();
  await t.updateMany({a: 1}, {$set: {b: 2}});
  await t.aggregate([{$match: {a: 1}}, {$out: "t2"}]).toArray();
  await t.drop();
  await c.close();
})().catch(e => { console.error(e); process.exit(1); });
