# Mutual and self recursion of shell functions, several levels deep.
even() { if [ "$1" -eq 0 ]; then r=1; else odd $(( $1 - 1 )); fi; }
odd()  { if [ "$1" -eq 0 ]; then r=0; else even $(( $1 - 1 )); fi; }
down() { if [ "$1" -gt 0 ]; then down $(( $1 - 1 )); fi; }
even 6
down 5
