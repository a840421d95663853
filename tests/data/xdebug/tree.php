<?php
$big = str_repeat("x", 1 << 20);
function release() { global $big; $big = null; }
function grow($n) { return $n == 0 ? [] : array_merge([str_repeat("y", 1000)], grow($n - 1)); }
class Tree {
    public $kids = [];
    function __construct($d) { if ($d > 0) { $this->kids = array_map(fn($i) => new Tree($d - 1), [1, 2]); } }
    function size() { return 1 + array_sum(array_map(fn($k) => $k->size(), $this->kids)); }
}
function even($n) { return $n == 0 ? true : odd($n - 1); }
function odd($n) { return $n == 0 ? false : even($n - 1); }
$t = new Tree(6);
echo $t->size(), "\n";
echo count(grow(30)), "\n";
echo even(25) ? "e\n" : "o\n";
release();
