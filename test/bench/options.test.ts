import { benchOptions, gatewaySelected, selectScenarios } from '../../bench/options';

const scenarios = [{ name: 'GET 4 KiB, c1' }, { name: 'GET 1 MiB, c8' }, { name: 'HEAD, c32' }];

describe('Benchmark command line', () => {
  it('GIVEN no options THEN a full run of every scenario', () => {
    expect(benchOptions([])).toEqual({ quick: false });
    expect(selectScenarios(scenarios, undefined)).toEqual(scenarios);
  });

  it('GIVEN --quick and --only THEN a short run of the scenarios whose name contains the text', () => {
    const options = benchOptions(['--quick', '--only', 'GET']);
    expect(options).toEqual({ quick: true, only: 'GET' });
    expect(selectScenarios(scenarios, options.only).map((s) => s.name)).toEqual(['GET 4 KiB, c1', 'GET 1 MiB, c8']);
  });

  it('GIVEN --only without a text THEN the run is refused before anything starts', () => {
    expect(() => benchOptions(['--only'])).toThrow(/--only needs part of a scenario name/);
    expect(() => benchOptions(['--only', '--quick'])).toThrow(/--only needs/);
    expect(() => benchOptions(['--only', ' '])).toThrow(/--only needs/);
    expect(() => benchOptions(['--baseline'])).toThrow(/--baseline needs a git revision/);
    expect(() => benchOptions(['--gateways', '--quick'])).toThrow(/--gateways needs gateway names/);
  });

  it('GIVEN --gateways THEN only the gateways named by one of its parts are measured', () => {
    const options = benchOptions(['--gateways', 'node, container']);
    expect(options.gateways).toEqual(['node', 'container']);
    expect(['node', 'lambda', 'web', 'edge', 'container'].filter((g) => gatewaySelected(options, g))).toEqual(['node', 'container']);
    expect(gatewaySelected(benchOptions([]), 'edge')).toBe(true);
  });

  it('GIVEN --rounds THEN that many rounds, and only a number from 1 to 99', () => {
    expect(benchOptions(['--rounds', '15']).rounds).toBe(15);
    expect(() => benchOptions(['--rounds', '0'])).toThrow(/--rounds needs a number of rounds from 1 to 99/);
    expect(() => benchOptions(['--rounds', 'many'])).toThrow(/--rounds needs/);
  });

  it('GIVEN --baseline THEN the revision is kept for a second Node server', () => {
    expect(benchOptions(['--baseline', 'a0e31eb', '--quick'])).toEqual({ quick: true, baseline: 'a0e31eb' });
  });

  it('GIVEN --only naming no scenario THEN the run is refused, listing the names', () => {
    expect(() => selectScenarios(scenarios, 'PUT')).toThrow('no scenario is named "PUT"; they are: GET 4 KiB, c1; GET 1 MiB, c8; HEAD, c32');
  });
});
