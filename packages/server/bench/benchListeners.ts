/**
 * The listeners of the nightly-rebuild benches (`bench:rebuild`, `bench:scale`): users and their plays, written by
 * PostgreSQL itself (deterministic ids from md5), as SQL statements the caller runs in order. The plays name tracks
 * by their index in `bench_track_index (idx, track_id, artist_id, album_id)`, a table the caller fills first: the
 * synthetic rows of `bench:rebuild`, or a scanned library's tracks (`trackIndexFromCatalog`).
 */

export const LISTENER_ZONES = [
  "UTC",
  "Europe/Paris",
  "America/New_York",
  "Asia/Kolkata",
  "Europe/Helsinki",
  "Asia/Tokyo",
]

/** `bench_track_index` over the catalogue's tracks, in id order (a scanned library's ids are random). */
export const trackIndexFromCatalog = [
  "DROP TABLE IF EXISTS bench_track_index",
  `CREATE TABLE bench_track_index AS
     SELECT (row_number() OVER (ORDER BY id) - 1)::int AS idx, id AS track_id, artist_id, album_id FROM tracks`,
  "ALTER TABLE bench_track_index ADD PRIMARY KEY (idx)",
]

/** The users (the trigger of migration 0024 gives each every library). */
export const listenerUsers = (users: number) => `
  INSERT INTO users (id, username, password_hash, timezone, created_at, updated_at)
  SELECT md5('user' || u)::uuid, 'listener' || u, 'x', (ARRAY['${LISTENER_ZONES.join("','")}'])[1 + u % ${LISTENER_ZONES.length}],
         now() - interval '400 days', now()
  FROM generate_series(0, ${users - 1}) u`

/**
 * Each user's plays, 50 users per statement: listening centres on a region of the library of their own (a cubed
 * draw: a few favourite artists heard a lot, a long tail), 15 % skips, spread over the past year.
 */
export const listenerPlays = (users: number, playsPerUser: number, tracks: number): Array<string> => {
  const statements: Array<string> = []
  const batch = 50
  for (let from = 0; from < users; from += batch) {
    statements.push(`
      INSERT INTO play_events (user_id, track_id, artist_id, album_id, client_id, started_at, ended_at, duration_played_ms,
                               track_duration_ms, skipped, completion, device_class, created_at)
      SELECT md5('user' || u)::uuid, t.track_id, t.artist_id, t.album_id,
             'bench', at, at + interval '3 minutes', CASE WHEN skip THEN 10000 ELSE 180000 END, 240000, skip,
             CASE WHEN skip THEN random() * 0.1 ELSE 0.5 + random() * 0.5 END,
             CASE WHEN random() < 0.6 THEN 'mobile' ELSE 'desktop' END, at
      FROM (
        SELECT u, ((u::bigint * 104729 + floor(${Math.min(tracks, 20000)} * power(random(), 3))::bigint) % ${tracks})::int AS idx,
               now() - random() * interval '365 days' AS at, random() < 0.15 AS skip
        FROM generate_series(${from}, ${Math.min(users, from + batch) - 1}) u, generate_series(1, ${playsPerUser}) i
      ) p JOIN bench_track_index t USING (idx)`)
  }
  return statements
}
