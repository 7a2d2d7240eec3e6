import { describe, expect, it } from 'vitest';
import { parsePackageSpecifier } from '@tributary/runtime';

describe('parsePackageSpecifier', () => {
  it('reads pins, scopes and subpaths', () => {
    expect(parsePackageSpecifier('ms@2.1.3')).toMatchObject({
      name: 'ms',
      range: '2.1.3',
      subpath: '',
      importPath: 'ms',
    });
    expect(parsePackageSpecifier('lodash@^4.17.0')).toMatchObject({ name: 'lodash', range: '^4.17.0' });
    expect(parsePackageSpecifier('@scope/pkg@~1.2.0')).toMatchObject({
      name: '@scope/pkg',
      range: '~1.2.0',
      importPath: '@scope/pkg',
    });
    expect(parsePackageSpecifier('lodash@4.17.21/fp')).toMatchObject({
      name: 'lodash',
      range: '4.17.21',
      subpath: '/fp',
      importPath: 'lodash/fp',
    });
    expect(parsePackageSpecifier('axios')).toMatchObject({ name: 'axios', range: null });
    expect(parsePackageSpecifier('@pipedream/platform')).toMatchObject({ name: '@pipedream/platform', range: null });
  });

  it('refuses relative, absolute and malformed specifiers', () => {
    expect(parsePackageSpecifier('./x.mjs')).toBeNull();
    expect(parsePackageSpecifier('/abs/x.mjs')).toBeNull();
    expect(parsePackageSpecifier('node:fs')).toBeNull();
    expect(parsePackageSpecifier('pkg@')).toBeNull();
    expect(parsePackageSpecifier('@scope')).toBeNull();
  });
});
