-- Agent-style statements written for tracelab, one per line, after the
-- scenario of seeds/000 (Server A guesses is_active, Server B applies the
-- governed definition) and common dialects agents emit. Golden analyses in
-- agent_queries.golden.jsonl; regenerate with go test ./scoring -run Golden -update.
SELECT count(*) FROM customers WHERE is_active = true AND region_code LIKE 'EU%' AND created_at >= '2026-04-01'
SELECT count(DISTINCT c.id) FROM customers c JOIN subscriptions s ON s.customer_id = c.id WHERE s.subscription_status IN ('ACTIVE', 'PAUSED_BILLING') AND c.sales_region = 'EMEA' AND s.period_start <= '2026-06-30' AND s.period_end >= '2026-04-01'
SELECT c.sales_region, sum(i.price * i.qty) AS revenue FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id WHERE o.status <> 'void' GROUP BY c.sales_region ORDER BY revenue DESC
WITH monthly AS (SELECT customer_id, date_trunc('month', created_at) AS m, sum(amount) AS total FROM orders GROUP BY 1, 2) SELECT customer_id, m, total, lag(total) OVER (PARTITION BY customer_id ORDER BY m) AS prev FROM monthly
SELECT `c`.`name`, COUNT(`o`.`id`) AS n FROM `customers` `c` LEFT JOIN `orders` `o` ON `o`.`customer_id` = `c`.`id` GROUP BY `c`.`name` ORDER BY n DESC LIMIT 0, 10
SELECT p."name", p."price" FROM "SHOP"."PUBLIC"."PRODUCTS" p WHERE p."category" = 'tools' AND p."price" BETWEEN 10 AND 50
SELECT v:customer.name::string FROM raw_events
UPDATE subscriptions SET subscription_status = 'CANCELLED' WHERE period_end < '2026-01-01' AND subscription_status = 'ACTIVE'
SELECT e.name, m.name AS manager FROM employees e LEFT JOIN employees m ON m.id = e.manager_id WHERE e.salary > (SELECT avg(salary) FROM employees WHERE dept_id = e.dept_id)
