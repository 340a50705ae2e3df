import { describe, expect, it } from 'vitest';
import { effectivePfcParams, validatePfcParams } from '@pfc/core';

describe('validatePfcParams', () => {
  it('parses query-string forms into typed values', () => {
    const r = validatePfcParams({ width: '800', autocrop: 'true', autocropType: '3', outputType: 'png' });
    expect(r.errors).toEqual([]);
    expect(r.params).toEqual({ width: 800, autocrop: true, autocropType: 3, outputType: 'png' });
  });

  it.each([
    ['width', 31, /width must be an integer from 32 to 10000/],
    ['height', 10001, /height must be an integer from 32 to 10000/],
    ['outputQuality', 39, /outputQuality must be an integer from 40 to 100/],
    ['outputType', 'gif', /outputType must be one of jpg, png, original/],
    ['aiArt', 'picasso', /aiArt must be one of pencilBw/],
    ['autocropType', 5, /autocropType must be one of 0, 1, 2, 3, 4/],
    ['bgShadow', 'long', /bgShadow must be one of soft, hard, floating/],
    ['bgColor', '#12345', /bgColor must be a 6-digit hex colour/],
  ])('rejects %s=%s naming the allowed range', (param, value, message) => {
    const r = validatePfcParams({ [param]: value });
    expect(r.errors.find((e) => e.param === param)?.message).toMatch(message);
  });

  it.each([' 800', '800 ', '+800', '8e2', '0x320', ''])('rejects width=%j: number text is plain digits', (value) => {
    expect(validatePfcParams({ width: value }).errors[0]?.message).toBe(`width must be an integer from 32 to 10000 (got ${JSON.stringify(value)})`);
  });

  it('keeps a decimal exactly as written, and refuses it padded', () => {
    expect(validatePfcParams({ autocrop: true, autocropSize: '1.20' }).params.autocropSize).toBe('1.20');
    expect(validatePfcParams({ autocrop: true, autocropSize: ' 1.2' }).errors[0]?.param).toBe('autocropSize');
    expect(validatePfcParams({ autocrop: true, autocropSize: '+1.2' }).errors[0]?.param).toBe('autocropSize');
  });

  it('enforces the requires rules', () => {
    expect(validatePfcParams({ autocropDetectOnly: true }).errors[0]?.message).toBe('autocropDetectOnly requires autocrop=true');
    expect(validatePfcParams({ autocropSize: '1.2' }).errors[0]?.message).toBe('autocropSize requires autocrop=true');
    expect(validatePfcParams({ bgColor: '#ffffff' }).errors[0]?.message).toBe('bgColor requires removeBackground=true');
    expect(validatePfcParams({ aiArtOutputSize: '4k' }).errors[0]?.message).toBe('aiArtOutputSize requires aiArt');
    expect(validatePfcParams({ autocrop: true, autocropDetectOnly: true, autocropSize: '1.2' }).errors).toEqual([]);
  });

  it('warns about what the priority rules make the service ignore', () => {
    const r = validatePfcParams({ width: 800, long: 600 });
    expect(r.errors).toEqual([]);
    expect(r.warnings[0]).toMatch(/uses width and ignores long/);
    expect(effectivePfcParams(r.params)).not.toHaveProperty('long');
    const bg = validatePfcParams({ removeBackground: true, bgColor: 'red', bgFileKey: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', bgShadow: 'soft' });
    expect(bg.warnings[0]).toMatch(/background mode is image \(from bgFileKey\); the service ignores bgColor/);
  });

  it('rejects unknown names unless told to ignore them', () => {
    expect(validatePfcParams({ widht: 5 }).errors[0]?.param).toBe('widht');
    expect(validatePfcParams({ widht: 5 }, { unknown: 'ignore' }).errors).toEqual([]);
  });
});
