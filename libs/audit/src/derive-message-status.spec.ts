import { deriveMessageStatus } from './derive-message-status';

describe('deriveMessageStatus', () => {
  it('is delivered when every operation is delivered or skipped', () => {
    expect(deriveMessageStatus(['delivered', 'delivered'])).toBe('delivered');
    expect(deriveMessageStatus(['delivered', 'skipped'])).toBe('delivered');
    expect(deriveMessageStatus(['skipped'])).toBe('delivered');
  });

  it('is superseded when newer writes overtook every operation, delivered when only some', () => {
    expect(deriveMessageStatus(['superseded', 'superseded'])).toBe('superseded');
    expect(deriveMessageStatus(['superseded', 'delivered'])).toBe('delivered');
    expect(deriveMessageStatus(['superseded', 'failed'])).toBe('partially_failed');
    expect(deriveMessageStatus(['superseded', 'pending'])).toBe('delivering');
  });

  it('is delivered for a message with nothing to deliver', () => {
    expect(deriveMessageStatus([])).toBe('delivered');
  });

  it('is delivering while any operation is pending or delivering, whatever the others did', () => {
    expect(deriveMessageStatus(['pending'])).toBe('delivering');
    expect(deriveMessageStatus(['delivered', 'delivering'])).toBe('delivering');
    expect(deriveMessageStatus(['failed', 'failed', 'pending'])).toBe('delivering');
    expect(deriveMessageStatus(['delivered', 'failed', 'delivering'])).toBe('delivering');
  });

  it('is partially_failed when all are settled and some failed and some succeeded', () => {
    expect(deriveMessageStatus(['delivered', 'failed'])).toBe('partially_failed');
    expect(deriveMessageStatus(['failed', 'skipped'])).toBe('partially_failed');
    expect(deriveMessageStatus(['failed', 'delivered', 'skipped', 'failed'])).toBe('partially_failed');
  });

  it('is failed when every operation failed', () => {
    expect(deriveMessageStatus(['failed'])).toBe('failed');
    expect(deriveMessageStatus(['failed', 'failed', 'failed'])).toBe('failed');
  });
});
