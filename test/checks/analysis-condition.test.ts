import {
  assessResult,
  evalCondition,
  measurementPhase,
  parseCondition,
  ConditionSyntaxError,
} from '../../src/checks/analysis-condition';
import { phaseOf, passesOnNoData } from '../../src/rules/no-data';
import { assessResult as rehearseAssess, evalCondition as rehearseEval } from '../../src/rehearse/condition';

// The one evaluator behind the canary checks, RW402/RW403 and the rehearsal. These pin the inputs
// on which the three former evaluators disagreed, to the controller's behaviour
// (argo-rollouts utils/evaluate/evaluate.go v1.9.1 on github.com/antonmedv/expr v1.15.5).
describe('one analysis-condition evaluator', () => {
  test('the three users share it', () => {
    expect(rehearseAssess).toBe(assessResult);
    expect(rehearseEval).toBe(evalCondition);
  });

  test('! binds tighter than a comparison (parser/operator/operator.go: ! 50, < 20), so !x < y compares a bool: an Error', () => {
    expect(measurementPhase([0.5], '!result[0] < 1')).toBe('Error');
    expect(measurementPhase([0.5], '!(result[0] < 1)')).toBe('Failed');
  });

  test('comparisons share one precedence, left to right: (a < b) == true', () => {
    expect(evalCondition('result[0] < 1 == true', [0.5])).toBe(true);
    expect(assessResult([0.5], 'true == result[0] < 1').phase).toBe('Error');
  });

  test("a negative index counts from the end (vm/runtime Fetch); past either end is reflect's error", () => {
    expect(evalCondition('result[-1] == 3', [1, 2, 3])).toBe(true);
    expect(phaseOf([1, 2, 3], 'result[-1] > 2')).toBe('Successful');
    expect(assessResult([1], 'result[-2] > 0')).toEqual({
      phase: 'Error',
      message: 'reflect: slice index out of range',
    });
    expect(assessResult([1, 2], 'result[0.5] > 0').phase).toBe('Error');
  });

  test('isNil and default ignore their first argument but evaluate it (evaluate.go isNilFunc, defaultFunc)', () => {
    expect(assessResult([], 'isNil(result[0])').phase).toBe('Error');
    expect(evalCondition('isNil(result)', null)).toBe(true);
    expect(evalCondition('isNil(result)', [])).toBe(false);
    expect(evalCondition('default(result, 0) == 0', null)).toBe(true);
    // default's value is the whole result, not its first argument.
    expect(assessResult([5], 'default(result[0], 0) < 10').phase).toBe('Error');
    expect(evalCondition('default(result, 0) < 10', 5)).toBe(true);
  });

  test('== compares arrays by value (vm/runtime Equal: reflect.DeepEqual), nil only to nil', () => {
    expect(evalCondition('result == result', [1, 2])).toBe(true);
    expect(evalCondition('result == nil', [])).toBe(false);
    expect(evalCondition('result == nil', null)).toBe(true);
  });

  test('# only inside a predicate; predicates with or without braces; all() of nothing is true', () => {
    expect(() => parseCondition('# > 1')).toThrow(ConditionSyntaxError);
    expect(evalCondition('all(result, # < 1)', [0.1])).toBe(true);
    expect(evalCondition('none(result, {# > 1})', [0.1])).toBe(true);
    expect(evalCondition('all(result, {# < 0.01})', [])).toBe(true);
  });

  test('RW402/RW403 now evaluate predicates: all() passes on an empty Prometheus result', () => {
    expect(passesOnNoData('prometheus', 'all(result, {# < 0.01})')).toBe('an empty result (no series yet)');
    expect(passesOnNoData('prometheus', 'len(result) > 0 && all(result, {# < 0.01})')).toBeUndefined();
  });

  test('number literals as expr lexes them (.5, 1E3, 2e+1), in the canary checks too', () => {
    expect(measurementPhase([0.4], 'result[0] < .5 && 1E3 == 1000 && 2e+1 == 20')).toBe('Successful');
  });

  test('each user keeps its answer to unmodelled syntax', () => {
    expect(measurementPhase([1], 'result[0] ** 2 > 1')).toBe('Error');
    expect(phaseOf([1], 'result[0] ** 2 > 1')).toBeUndefined();
    expect(phaseOf([1], 'filter(result, # > 0) == result')).toBeUndefined();
    expect(() => assessResult([1], 'result[0] ** 2 > 1')).toThrow(ConditionSyntaxError);
  });
});
