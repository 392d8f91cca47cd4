-- A connection's first verification writes its summary (last_result, about 130 bytes) and grows the
-- row from about 390 to 520 bytes. Connections created together are verified together, so every row
-- of a page gets its new version in one transaction, and with half the page free (fillfactor 50) the
-- last few did not fit: about 30% of those updates left the page and wrote an entry in each of the
-- table's six indexes. At 40 they all stay on the page (HOT). New pages only; existing ones follow as
-- rows move.
alter table connections set (fillfactor = 40);
