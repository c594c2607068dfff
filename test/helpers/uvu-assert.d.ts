// uvu declares assert.ok as an assertion but not assert.not.ok; this lets `assert.not.ok(r.ok)` narrow a result union
// in the type-checked tests the same way `assert.ok(r.ok)` does.
import 'uvu/assert';

declare module 'uvu/assert' {
  namespace not {
    function ok(actual: unknown, msg?: Message): asserts actual is false | 0 | '' | null | undefined;
  }
}
