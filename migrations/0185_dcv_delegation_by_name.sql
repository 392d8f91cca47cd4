-- The `_acme-challenge` delegation is one per DNS name (issue 50): a connection made through delegated
-- DCV takes the label a connection of the same name (`a.example` or `*.a.example`, open or
-- disconnected) has in its workspace, and refuses a name another workspace's open connection holds.
-- Those look-ups go by domain among connections with a label, closed ones included.
create index connections_dcv_domain on connections (domain) where dcv_label is not null;
