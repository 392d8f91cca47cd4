-- A sign-in link remembers the browser that asked for it (the hash of a cookie set on the page that
-- asked): opened in another browser, the link's page says so and names the address and workspace it
-- signs in (oauth/people.ts). Null for links made before this column, and then nothing is said.
alter table member_signins add column asked_from bytea;
