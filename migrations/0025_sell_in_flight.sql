-- Orders in flight, oldest change first: what the sell-resume sweep reads every minute.
create index sell_orders_in_flight on sell_orders (updated_at) where status in ('authorized', 'registering', 'registered');
