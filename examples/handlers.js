'use strict';
// server.lib of examples/people.yml: each export is a factory (config) => (req, res) => ….
// Application code reaches the resources through the global $app that the host sets.

exports.peopleStats = function peopleStats(config) {
  return async function handle(req, res) {
    const [mysqlRows, pgRows] = await Promise.all([
      $app.resources.get('people-mysql').query('SELECT COUNT(*) AS people FROM example_people'),
      $app.resources.get('people-postgres').query('SELECT COUNT(*)::int AS people FROM example_people'),
    ]);
    res.send({
      code: 'ok',
      message: `people on both databases (${config.path})`,
      data: { mysql: Number(mysqlRows[0].people), postgres: pgRows[0].people },
    });
  };
};
