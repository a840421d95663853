-- Recursion inside SQLite's C code: a trigger that fires itself (the VDBE
-- and the code generator re-entered), nested subqueries and a deeply nested
-- expression (the walkers, resolver and copies recurse), a recursive CTE.
WITH RECURSIVE fib(n, a, b) AS (SELECT 1, 0, 1 UNION ALL SELECT n + 1, b, a + b FROM fib WHERE n < 30)
SELECT max(a) FROM fib;
SELECT (((((((((((((((((((1-2)+3)*4)-5)+6)*7)-8)+9)*10)-11)+12)*13)-14)+15)*16)-17)+18)*19)-20);
CREATE TABLE t(x);
CREATE TRIGGER tr AFTER INSERT ON t WHEN new.x < 12 BEGIN INSERT INTO t VALUES (new.x + 1); END;
PRAGMA recursive_triggers = ON;
INSERT INTO t VALUES (0);
SELECT count(*) FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM (SELECT * FROM t WHERE x IN (SELECT x FROM t)))));
